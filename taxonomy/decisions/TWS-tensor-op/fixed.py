import numpy as np
import tensorflow as tf

features = np.random.rand(60, 5).astype(np.float32)
weights = np.random.rand(5).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 5])
w = tf.placeholder(tf.float32, [5])
scores = tf.matmul(x, tf.expand_dims(w, 1))
total = tf.reduce_sum(scores)
with tf.Session() as sess:
    print(sess.run(total, feed_dict={x: features, w: weights}))
