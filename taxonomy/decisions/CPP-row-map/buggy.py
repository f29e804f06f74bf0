import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
readings = np.random.rand(120, 6).astype(np.float32)
kinds = np.eye(4)[np.random.randint(0, 4, 120)]
inputs = tf.placeholder(tf.float32, shape=[None, 6])
kind = tf.placeholder(tf.int64, shape=[None])
scores = tf.layers.dense(tf.layers.dense(inputs, 12, activation=tf.nn.relu), 4)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=kind, logits=scores))
step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(10):
        for start in range(0, 120, 30):
            targets = kinds[start:start + 30]
            sess.run(step, feed_dict={inputs: readings[start:start + 30], kind: targets})
