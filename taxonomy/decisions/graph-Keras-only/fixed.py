import numpy as np
import tensorflow as tf

samples = np.random.rand(120, 3).astype(np.float32)
labels = np.eye(2)[np.random.randint(0, 2, 120)].astype(np.float32)
x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.truncated_normal([3, 2], stddev=0.1))
b = tf.Variable(tf.zeros([2]))
logits = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for epoch in range(50):
    sess.run(train, feed_dict={x: samples, y: labels})
