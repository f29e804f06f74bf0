import tensorflow as tf


def run():
    with tf.device('/cpu:0'):
        a = tf.constant([1.0, 2.0, 3.0], name='a')
        b = tf.constant([4.0, 5.0, 6.0], name='b')
        c = tf.matmul(tf.expand_dims(a, 0), tf.expand_dims(b, 1))
    session = tf.Session()
    print(session.run(c))


run()
