import numpy as np
import tensorflow as tf

GENERATIONS = 50
points = np.random.rand(40, 4).astype(np.float32)
scores = np.random.rand(40, 1).astype(np.float32)
given = tf.placeholder(tf.float32, [None, 4])
expected = tf.placeholder(tf.float32, [None, 1])
kernel = tf.Variable(tf.zeros([4, 1]))
cost = tf.reduce_mean(tf.square(tf.matmul(given, kernel) - expected))
update = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
session = tf.Session()
session.run(tf.global_variables_initializer())
for generation in range(GENERATIONS):
    session.run(update, feed_dict={given: points, expected: scores})
    print(session.run(cost, feed_dict={given: points, expected: scores}))
