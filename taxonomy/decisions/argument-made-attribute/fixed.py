import numpy as np
import tensorflow as tf


class Shrinker(object):
    def __init__(self):
        self.weight = tf.Variable(tf.ones([3, 1]))

    def set_inputs(self, inputs):
        self.inputs = tf.constant(inputs, dtype=tf.float32)

    def step(self, rate=0.1):
        out = tf.matmul(self.inputs, self.weight)
        return self.weight.assign_sub(rate * tf.reduce_mean(out) * tf.ones([3, 1]))


rows = np.random.rand(50, 3).astype(np.float32)
shrinker = Shrinker()
shrinker.set_inputs(rows)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(10):
        sess.run(shrinker.step())
