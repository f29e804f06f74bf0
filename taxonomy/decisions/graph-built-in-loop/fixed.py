import numpy as np
import tensorflow as tf

n_train = 150
rows = np.random.rand(200, 3).astype(np.float32)
marks = np.eye(2)[np.random.randint(0, 2, 200)].astype(np.float32)
given = tf.placeholder(tf.float32, [None, 3])
wanted = tf.placeholder(tf.float32, [None, 2])
kernel = tf.Variable(tf.zeros([3, 2]))
scores = tf.matmul(given, kernel)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=scores, labels=wanted))
update = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
agree = tf.equal(tf.argmax(scores, 1), tf.argmax(wanted, 1))
hits = tf.reduce_mean(tf.cast(agree, tf.float32))
session = tf.Session()
session.run(tf.global_variables_initializer())
for turn in range(20):
    _, loss_now = session.run([update, cost], feed_dict={given: rows[:n_train], wanted: marks[:n_train]})
    print(session.run(hits, feed_dict={given: rows[:n_train], wanted: marks[:n_train]}))
    print(session.run(hits, feed_dict={given: rows[n_train:], wanted: marks[n_train:]}))
