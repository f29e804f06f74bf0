import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
points = np.random.rand(64, 8).astype(np.float32)
labels = np.eye(2)[np.random.randint(0, 2, 64)].astype(np.float32)
decay = 0.001
x = tf.placeholder(tf.float32, [None, 8])
y = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.random_normal([8, 2], stddev=0.1))
b = tf.Variable(tf.zeros([2]))
logits = tf.matmul(x, w) + b
fit_term = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
loss = fit_term + decay * tf.nn.l2_loss(w)
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(20):
        for start in range(0, 64, 16):
            end = start + 16
            sess.run(train, feed_dict={x: points[start:end], y: labels[start:end]})
