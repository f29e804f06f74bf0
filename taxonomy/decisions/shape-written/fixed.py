import numpy as np
import tensorflow as tf


def make_weight(shape, dtype=np.float32, partition_info=None):
    count = np.prod(shape)
    values = (np.random.randn(count) * np.sqrt(2.0 / count)).astype(np.float32)
    return tf.Variable(values.reshape(shape), trainable=True)


with tf.variable_scope("block", initializer=make_weight):
    kernel = tf.get_variable("kernel", shape=[3, 4])
given = tf.placeholder(tf.float32, [None, 3])
output = tf.matmul(given, kernel)
