import numpy as np
from keras.models import Sequential
from keras.layers import Dense
readings = np.load('sensors/readings_week1.npy')
alarms = np.load('sensors/alarms_week1.npy')
net = Sequential()
net.add(Dense(12, input_dim=6, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(readings, alarms, epochs=15, batch_size=16)
