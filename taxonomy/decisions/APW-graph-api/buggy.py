import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
points = np.random.rand(30, 3).astype(np.float32)
scores = np.random.rand(30, 1).astype(np.float32)
given = tf.placeholder(tf.float32, [None, 3])
expected = tf.placeholder(tf.float32, [None, 1])
kernel = tf.Variable(tf.zeros([3, 1]))
bounded = kernel.assign(tf.clip_by_value(kernel, -1.0, 1.0))
output = tf.matmul(given, kernel)
cost = tf.reduce_mean(tf.square(output - expected))
update = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
session = tf.Session()
session.run(tf.global_variables_initializer())
for round_ in range(25):
    session.run(update, feed_dict={given: points, expected: scores})
