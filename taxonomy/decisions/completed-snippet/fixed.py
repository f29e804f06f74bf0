from keras.models import Sequential
from keras.layers import Dense, LSTM, Dropout
import numpy as np
x = np.random.rand(20, 10, 4)
y = np.random.randint(0, 2, 20)
model = Sequential()
model.add(LSTM(32, input_shape=(10, 4)))
model.add(Dense(16, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=1)
