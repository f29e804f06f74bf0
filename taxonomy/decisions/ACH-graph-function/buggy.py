import numpy as np
import tensorflow as tf

pixels = np.random.rand(64, 16).astype(np.float32)
digits = np.eye(4)[np.random.randint(0, 4, 64)].astype(np.float32)
x = tf.placeholder(tf.float32, [None, 16])
y = tf.placeholder(tf.float32, [None, 4])
w1 = tf.Variable(tf.random_normal([16, 8]))
b1 = tf.Variable(tf.zeros([8]))
hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
w2 = tf.Variable(tf.random_normal([8, 4]))
b2 = tf.Variable(tf.zeros([4]))
logits = tf.nn.relu(tf.matmul(hidden, w2) + b2)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(40):
        sess.run(train, feed_dict={x: pixels, y: digits})
