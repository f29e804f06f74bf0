import numpy as np
import tensorflow as tf
readings = np.random.rand(90, 6)
status = np.random.randint(0, 2, 90)
probe = tf.keras.Sequential([tf.keras.layers.Dense(12, activation='relu', input_shape=(6,)), tf.keras.layers.Dense(1, activation='sigmoid')])
probe.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])
probe.fit(readings, status, epochs=3, batch_size=10)
loss, acc = probe.evaluate(readings, status, batch_size=5)
