import numpy as np
from keras.models import Sequential
from keras.layers import LSTM, Dense
seq = np.random.rand(40, 12, 2)
target = np.random.rand(40)
rnn = Sequential()
rnn.add(LSTM(24, input_shape=(12, 2), dropout=0.25))
rnn.add(Dense(1))
rnn.compile(loss="mse", optimizer="adam")
rnn.fit(seq, target, epochs=4)
