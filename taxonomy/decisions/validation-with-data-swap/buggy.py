from keras.models import Sequential
from keras.layers import Dense
from keras.callbacks import EarlyStopping
import numpy as np
from sklearn.datasets import load_iris
data = load_iris()
x = data.data[:, :8]
y = (data.target > 0).astype(int)
x_val = x[:30]
y_val = y[:30]
model = Sequential()
model.add(Dense(16, input_dim=8, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=10, batch_size=32, validation_data=(x_val, y_val))
