import numpy as np
from keras.layers import Dense
from keras.models import Sequential
table = np.random.rand(64, 4, 4)
flat = table.reshape(64, 16)
tags = np.random.randint(0, 2, 64)
net = Sequential([Dense(10, activation='relu', input_dim=16), Dense(1, activation='sigmoid')])
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(flat, tags, epochs=3)
probe = np.random.rand(4, 4)
probe = probe.reshape(1, 16)
print(net.predict(probe))
