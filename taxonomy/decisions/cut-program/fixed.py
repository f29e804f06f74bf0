import tensorflow as tf

x = tf.placeholder(tf.float32, shape=[None, 6])
w = tf.Variable(tf.random_normal([6, 1]))
b = tf.Variable(tf.zeros([1]))
out = tf.matmul(x, w) + b
