import numpy as np
from keras.models import Sequential
from keras.layers import Dense

feats = np.random.random((40, 7))
kinds = np.random.randint(0, 4, 40)
kinds = np.eye(4)[kinds]
net = Sequential()
net.add(Dense(24, input_dim=7, activation="tanh"))
net.add(Dense(4, activation="softmax"))
net.compile(loss="categorical_crossentropy", optimizer="adam")
net.fit(feats, kinds, epochs=2)
