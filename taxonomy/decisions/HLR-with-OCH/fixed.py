from keras.models import Sequential
from keras.layers import Dense
from keras.optimizers import Nadam
import numpy as np
readings = np.random.rand(160, 5)
alarms = np.random.randint(0, 2, 160)
detector = Sequential()
detector.add(Dense(10, input_dim=5, activation='tanh'))
detector.add(Dense(1, activation='sigmoid'))
detector.compile(loss='binary_crossentropy', optimizer=Nadam(lr=0.02))
detector.fit(readings, alarms, epochs=8, batch_size=16)
