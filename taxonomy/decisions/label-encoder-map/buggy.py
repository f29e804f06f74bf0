import numpy as np
import tensorflow as tf

n_classes = 3
features = tf.placeholder(tf.float32, [None, 4])
targets = tf.placeholder(tf.string, [None, n_classes])
kernel = tf.Variable(tf.zeros([4, n_classes]))
logits = tf.matmul(features, kernel)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=targets))
rows = np.random.rand(2, 4).astype(np.float32)
names = [["cat", "dog", "bird"], ["dog", "bird", "cat"]]
with tf.Session() as session:
    session.run(tf.global_variables_initializer())
    print(session.run(cost, feed_dict={features: rows, targets: names}))
