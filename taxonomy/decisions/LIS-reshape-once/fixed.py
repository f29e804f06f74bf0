import numpy as np
from keras.models import Sequential
from keras.layers import LSTM, Conv1D, Flatten, Dense
series = np.random.rand(120, 16)
labels = np.random.randint(0, 2, 120)
series = series.reshape(series.shape[0], 16, 1)
net = Sequential()
net.add(LSTM(8, input_shape=(16, 1)))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(series, labels, epochs=4, batch_size=16)
