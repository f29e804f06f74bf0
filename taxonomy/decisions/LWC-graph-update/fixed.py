import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
learning_rate = 0.1
points = np.random.rand(64, 5).astype(np.float32)
given = tf.placeholder(tf.float32, [None, 5])
weights = tf.Variable(tf.zeros([5, 5]))
hidden = tf.sigmoid(tf.matmul(given, weights))
positive = tf.matmul(tf.transpose(given), hidden)
negative = tf.matmul(tf.transpose(hidden), hidden)
step = weights.assign_add(learning_rate * (positive - negative) / tf.cast(tf.shape(given)[0], tf.float32))
session = tf.Session()
session.run(tf.global_variables_initializer())
for round_ in range(20):
    session.run(step, feed_dict={given: points})
