from keras.models import Sequential
from keras.layers import LSTM, Dense, Dropout, Flatten
import numpy as np
model = Sequential()
model.add(LSTM(32, input_shape=(10, 4)))
model.add(Dense(16))
