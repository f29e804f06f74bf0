import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()


def make_data(count):
    source = np.random.rand(count, 6).astype(np.float32)
    target = source.sum(axis=1, keepdims=True)
    return source, target


def build(graph_inputs):
    kernel = tf.Variable(tf.random_normal([6, 1], stddev=0.1))
    return tf.matmul(graph_inputs, kernel)


samples, answers = make_data(80)
inputs = tf.placeholder(tf.float32, [None, 6])
truth = tf.placeholder(tf.float32, [None, 1])
estimate = build(inputs)
error = tf.reduce_mean(tf.square(estimate - truth))
step = tf.train.GradientDescentOptimizer(0.01).minimize(error)
session = tf.Session()
session.run(tf.global_variables_initializer())
for turn in range(50):
    session.run(step, feed_dict={inputs: samples, truth: answers})
