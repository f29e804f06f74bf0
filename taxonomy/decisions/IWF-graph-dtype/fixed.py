import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
counts = tf.placeholder(tf.int32, [None, 3])
prices = tf.placeholder(tf.float32, [3, 2])
totals = tf.matmul(tf.cast(counts, tf.float32), prices)
session = tf.Session()
print(session.run(totals, feed_dict={counts: np.random.randint(0, 5, (4, 3)), prices: np.random.rand(3, 2)}))
