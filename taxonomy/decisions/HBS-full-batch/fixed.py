import numpy as np
from keras.models import Sequential
from keras.layers import Dense
coords = np.random.rand(400, 2)
inside = np.random.randint(0, 2, 400)
ring = Sequential()
ring.add(Dense(20, input_dim=2, activation='tanh'))
ring.add(Dense(1, activation='sigmoid'))
ring.compile(loss='binary_crossentropy', optimizer='sgd')
ring.fit(coords, inside, epochs=30, batch_size=16)
