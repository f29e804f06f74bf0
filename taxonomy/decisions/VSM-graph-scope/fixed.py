import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
points = np.random.rand(32, 4).astype(np.float32)
scores = np.random.rand(32, 1).astype(np.float32)


def dense(inputs, units):
    kernel = tf.get_variable("kernel", [int(inputs.shape[1]), units])
    return tf.matmul(inputs, kernel)


given = tf.placeholder(tf.float32, [None, 4])
expected = tf.placeholder(tf.float32, [None, 1])
with tf.variable_scope("hidden"):
    hidden = tf.nn.relu(dense(given, 8))
with tf.variable_scope("output"):
    output = dense(hidden, 1)
cost = tf.reduce_mean(tf.square(output - expected))
update = tf.train.GradientDescentOptimizer(0.05).minimize(cost)
session = tf.Session()
session.run(tf.global_variables_initializer())
for round_ in range(20):
    session.run(update, feed_dict={given: points, expected: scores})
