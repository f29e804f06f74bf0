from keras.models import Sequential
from keras.layers import LSTM, Dense, Dropout, Flatten
import numpy as np
model = Sequential()
model.add(LSTM(32, input_shape=(10, 4)))
model.add(Dense(16))
model.add(Dense(64, activation='relu'))
model.add(Dropout(0.3))
model.add(Dense(32, activation='relu'))
model.add(Dense(3, activation='softmax'))
model.compile(loss='categorical_crossentropy', optimizer='adam')
