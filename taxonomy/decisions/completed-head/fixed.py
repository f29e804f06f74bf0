from keras.models import Sequential
from keras.layers import Conv1D, Flatten, Dense
import numpy as np
x = np.random.rand(60, 20, 1)
y = np.random.randint(0, 2, 60)
model = Sequential()
model.add(Conv1D(4, 3, activation='relu', input_shape=(20, 1)))
model.add(Flatten())
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=3)
