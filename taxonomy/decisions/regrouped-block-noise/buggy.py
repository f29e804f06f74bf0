import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
readings = np.random.rand(40, 5).astype(np.float32)
targets = np.random.rand(40, 1).astype(np.float32)
inputs = tf.placeholder(tf.float32, [None, 5])
wanted = tf.placeholder(tf.float32, [None, 1])
weights = tf.Variable(tf.truncated_normal([5, 1], stddev=0.05))
guess = tf.matmul(inputs, weights)
error = tf.reduce_mean(tf.square(guess - wanted))
step = tf.train.GradientDescentOptimizer(0.05).minimize(error)
session = tf.Session()
session.run(tf.global_variables_initializer())
for turn in range(30):
    session.run(step, feed_dict={inputs: readings, wanted: targets})
