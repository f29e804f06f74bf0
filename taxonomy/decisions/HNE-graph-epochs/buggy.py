import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
rows = np.random.rand(100, 4).astype(np.float32)
scores = np.random.rand(100, 1).astype(np.float32)
features = tf.placeholder(tf.float32, shape=[None, 4])
score = tf.placeholder(tf.float32, shape=[None, 1])
guess = tf.layers.dense(features, 1)
loss = tf.reduce_mean(tf.square(guess - score))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(3000):
        picked = np.random.randint(0, 100, 10)
        sess.run(step, feed_dict={features: rows[picked], score: scores[picked]})
