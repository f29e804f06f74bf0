from keras.models import Sequential
from keras.layers import Dense
import numpy as np
x = np.random.rand(40, 3)
y = np.random.randint(0, 2, 40)
model = Sequential()
model.add(Dense(4, input_dim=3, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=3)
