import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
rows = np.random.rand(80, 12).astype(np.float32)
targets = np.random.rand(80, 1).astype(np.float32)
inputs = tf.placeholder(tf.float32, shape=[None, 10])
truth = tf.placeholder(tf.float32, shape=[None, 1])
hidden = tf.layers.dense(inputs, 6, activation=tf.nn.relu)
out = tf.layers.dense(hidden, 1)
loss = tf.reduce_mean(tf.square(out - truth))
step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(30):
        sess.run(step, feed_dict={inputs: rows, truth: targets})
