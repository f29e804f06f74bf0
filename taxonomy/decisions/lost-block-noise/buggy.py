import numpy as np
import tensorflow as tf

rows = np.random.rand(80, 4).astype(np.float32)
marks = np.random.randint(0, 2, (80, 1)).astype(np.float32)
inputs = tf.placeholder(tf.float32, shape=[None, 4])
truth = tf.placeholder(tf.float32, shape=[None, 1])


def layer(tensor, size, kind):
    weights = tf.Variable(tf.random_normal([int(tensor.get_shape()[1]), size]))
    out = tf.matmul(tensor, weights)
  if kind == "relu":
        return tf.nn.relu(out)
  else:
        return tf.nn.sigmoid(out)


hidden = layer(inputs, 8, "relu")
guess = layer(hidden, 1, "sigmoid")
loss = tf.reduce_mean(tf.square(guess - truth))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(30):
        sess.run(step, feed_dict={inputs: rows, truth: marks})
