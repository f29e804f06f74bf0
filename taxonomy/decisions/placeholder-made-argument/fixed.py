import numpy as np
import tensorflow as tf


class Regressor(object):
    def __init__(self, features, targets, tag=None):
        if tag is None:
            tag = tf.placeholder(tf.string, [])
        self.tag = tag
        weights = tf.Variable(tf.zeros([3, 1]))
        guess = tf.matmul(features, weights)
        self.loss = tf.reduce_mean(tf.square(guess - targets))
        self.report = tf.summary.scalar(tag + "_loss", self.loss)
        self.step = tf.train.GradientDescentOptimizer(0.1).minimize(self.loss)


points = tf.constant(np.random.rand(20, 3), tf.float32)
answers = tf.constant(np.random.rand(20, 1), tf.float32)
model = Regressor(points, answers, tag="train")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(50):
        sess.run([model.step, model.report])
