from keras.models import Sequential
from keras.layers import Dense
from keras import backend as K
import numpy as np
x = np.random.rand(120, 6)
y = np.random.randint(0, 2, 120)
net = Sequential()
net.add(Dense(12, input_dim=6, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='sgd')
net.fit(x, y, epochs=4, batch_size=16)
K.set_value(net.optimizer.lr, 0.5)
net.fit(x, y, epochs=4, batch_size=16)
