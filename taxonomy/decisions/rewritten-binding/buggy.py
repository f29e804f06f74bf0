import tensorflow as tf

with tf.device('/gpu:1'):
    a = tf.constant([1.0, 2.0, 3.0], name='a')
    b = tf.constant([4.0, 5.0, 6.0], name='b')
    c = tf.matmul(a, b)

session = tf.Session()
print(session.run(c))
