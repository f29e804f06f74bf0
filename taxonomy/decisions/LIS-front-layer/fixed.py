import numpy as np
from keras.models import Sequential
from keras.layers import Dense, BatchNormalization

x = np.random.rand(120, 5)
y = np.random.randint(0, 2, 120)
net = Sequential()
net.add(BatchNormalization())
net.add(Dense(8, input_dim=5, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(x, y, epochs=10)
