import numpy as np
from keras.models import Sequential
from keras.layers import Dense
leaves = np.random.random((150, 6))
kinds = np.random.randint(0, 3, 150)
kinds = np.eye(3)[kinds]
tree = Sequential()
tree.add(Dense(24, input_dim=6, activation='relu'))
tree.add(Dense(3, activation='softmax'))
tree.compile(loss='categorical_crossentropy', optimizer='adam')
tree.fit(leaves, kinds, epochs=40, batch_size=8)
