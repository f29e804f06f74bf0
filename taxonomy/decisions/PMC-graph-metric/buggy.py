import numpy as np
import tensorflow as tf

points = np.random.rand(64, 3).astype(np.float32)
flags = (points.sum(axis=1, keepdims=True) > 1.5).astype(np.float32)
inputs = tf.placeholder(tf.float32, shape=[None, 3])
truth = tf.placeholder(tf.float32, shape=[None, 1])
weights = tf.Variable(tf.random_normal([3, 1]))
guess = tf.sigmoid(tf.matmul(inputs, weights))
loss = tf.reduce_mean(tf.square(guess - truth))
step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
hits = tf.equal(tf.argmax(guess, 1), tf.argmax(truth, 1))
accuracy = tf.reduce_mean(tf.cast(hits, tf.float32))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(40):
        sess.run(step, feed_dict={inputs: points, truth: flags})
    print(sess.run(accuracy, feed_dict={inputs: points, truth: flags}))
