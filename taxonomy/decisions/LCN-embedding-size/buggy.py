from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Embedding, LSTM, Dense
import numpy as np
words = np.random.randint(0, 900, size=(64, 12))
target = np.random.randint(0, 2, size=(64,))
net = Sequential()
net.add(Embedding(900, 16, input_length=12))
net.add(LSTM(8))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(words, target, epochs=3)
