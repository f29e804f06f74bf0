import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
points = np.random.rand(40, 4).astype(np.float32)
scores = np.random.rand(40, 1).astype(np.float32)
given = tf.placeholder(tf.float32, [None, 4])
expected = tf.placeholder(tf.float32, [None, 1])
kernel = tf.Variable(tf.zeros([4, 1]))
output = tf.matmul(given, kernel)
cost = tf.reduce_mean(tf.square(output - expected))
tf.summary.scalar("cost", cost)
tf.summary.merge_all()
update = tf.train.GradientDescentOptimizer(0.05).minimize(cost)
session = tf.Session()
session.run(tf.global_variables_initializer())
for round_ in range(30):
    session.run(update, feed_dict={given: points, expected: scores})
