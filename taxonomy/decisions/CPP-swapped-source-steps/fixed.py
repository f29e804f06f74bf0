import numpy as np
from keras.models import Sequential
from keras.layers import Dense
inputs = np.random.random((120, 5))
target = np.random.random(120)
reg = Sequential()
reg.add(Dense(12, input_dim=5, activation='relu'))
reg.add(Dense(1))
reg.compile(loss='mse', optimizer='adam')
reg.fit(inputs, target, epochs=25, batch_size=16)
