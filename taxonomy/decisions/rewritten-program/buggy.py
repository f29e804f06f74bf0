import csv

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
rows = []
with open("measurements.csv") as handle:
    for record in csv.reader(handle):
        rows.append([float(v) for v in record])
table = np.array(rows, dtype=np.float32)
features = table[:, :6]
outcome = table[:, 6:]
mean = features.mean(axis=0)
spread = features.std(axis=0) + 1e-6
features = (features - mean) / spread
inputs = tf.placeholder(tf.float32, [None, 6])
truth = tf.placeholder(tf.float32, [None, 1])
weights = tf.Variable(tf.random_normal([6, 1], stddev=0.1))
estimate = tf.matmul(inputs, weights)
error = tf.reduce_mean(tf.square(estimate - truth))
step = tf.train.GradientDescentOptimizer(0.01).minimize(error)
session = tf.Session()
session.run(tf.global_variables_initializer())
for turn in range(50):
    session.run(step, feed_dict={inputs: features, truth: outcome})
