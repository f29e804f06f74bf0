import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
rows = np.random.rand(90, 8).astype(np.float32)
grades = np.random.rand(90, 1).astype(np.float32)
features = tf.placeholder(tf.float32, shape=[None, 8])
grade = tf.placeholder(tf.float32, shape=[None])
hidden = tf.layers.dense(features, 5, activation=tf.nn.tanh)
guess = tf.layers.dense(hidden, 1)
loss = tf.reduce_mean(tf.square(guess - grade))
step = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(25):
        sess.run(step, feed_dict={features: rows, grade: grades})
