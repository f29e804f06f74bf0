import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
points = np.random.rand(90, 6).astype(np.float32)
classes = np.eye(3)[np.random.randint(0, 3, 90)].astype(np.float32)
x = tf.placeholder(tf.float32, [None, 6])
y = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable(tf.zeros([6, 3]))
b = tf.Variable(tf.zeros([3]))
prob = tf.nn.softmax(tf.matmul(x, w) + b)
loss = -tf.reduce_sum(y * tf.log(tf.clip_by_value(prob, 1e-10, 1.0)))
train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(25):
        sess.run(train, feed_dict={x: points, y: classes})
