from keras.models import Sequential
from keras.layers import Dense
from keras.regularizers import l2
import numpy as np
sensor = np.random.rand(240, 7)
state = np.eye(3)[np.random.randint(0, 3, 240)]
clf = Sequential()
clf.add(Dense(24, input_dim=7, activation='tanh', kernel_regularizer=l2(0.01)))
clf.add(Dense(12, activation='tanh', kernel_regularizer=l2(0.01)))
clf.add(Dense(3, activation='softmax', kernel_regularizer=l2(0.01)))
clf.compile(loss='categorical_crossentropy', optimizer='adam')
clf.fit(sensor, state, epochs=6, batch_size=24)
