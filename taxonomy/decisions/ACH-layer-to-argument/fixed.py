from keras.models import Sequential
from keras.layers import Dense, Activation
import numpy as np
x = np.random.rand(50, 4)
y = np.eye(3)[np.random.randint(0, 3, 50)]
model = Sequential()
model.add(Dense(8, input_dim=4, activation='relu'))
model.add(Dense(3, activation='linear'))
model.compile(loss='categorical_crossentropy', optimizer='adam')
model.fit(x, y, epochs=5)
