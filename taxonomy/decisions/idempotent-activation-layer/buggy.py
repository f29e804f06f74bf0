from keras.models import Sequential
from keras.layers import Dense, Activation
import numpy as np
x = np.random.rand(80, 5)
y = np.random.randint(0, 2, 80)
model = Sequential()
model.add(Dense(10, input_dim=5, activation='relu'))
model.add(Activation('relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='sgd')
model.fit(x, y, epochs=2)
