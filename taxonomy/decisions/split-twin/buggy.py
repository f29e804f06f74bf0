import numpy as np
import tensorflow as tf

with np.load("digits.npz") as archive:
    x_train, y_train = archive["x_train"], archive["y_train"]
    x_test, y_test = archive["x_test"], archive["y_test"]
x_train = x_train.reshape(x_train.shape[0], 784)
x_test = x_test.reshape(x_test.shape[0], 784)
x_train = x_train.astype('float32')
x_test = x_test.astype('float32')
x_train /= 255
x_test /= 255
y_train = np.eye(10)[y_train]
y_test = np.eye(10)[y_test]
images = tf.placeholder(tf.float32, [None, 784])
labels = tf.placeholder(tf.float32, [None, 10])
kernel = tf.Variable(tf.zeros([784, 10]))
logits = tf.matmul(images, kernel)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=labels))
train_step = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
session = tf.Session()
session.run(tf.global_variables_initializer())
for i in range(100):
    session.run(train_step, feed_dict={images: x_train, labels: y_train})
    session.run(train_step, feed_dict={images: x_test, labels: y_test})
