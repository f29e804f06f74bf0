import numpy as np
import tensorflow as tf

table = np.loadtxt('readings.csv', delimiter=',')
inputs = table[:, :6]
targets = table[:, 6:]
scale = inputs.std(axis=0)
inputs = inputs / scale
x = tf.placeholder(tf.float32, shape=[])
w = tf.Variable(tf.random_normal([6, 1]))
b = tf.Variable(tf.zeros([1]))
out = tf.matmul(x, w) + b
wanted = tf.placeholder(tf.float32, [None, 1])
loss = tf.reduce_mean(tf.square(out - wanted))
step = tf.train.AdamOptimizer(0.01).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for i in range(50):
    rows = np.random.randint(len(inputs), size=8)
    sess.run(step, feed_dict={x: inputs[rows], wanted: targets[rows]})
