import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from keras.utils import to_categorical

features = np.random.rand(90, 6)
labels_onehot = to_categorical(np.random.randint(0, 3, 90))

net = Sequential()
net.add(Dense(12, input_dim=6, activation='relu'))
net.add(Dense(3, activation='softmax'))
net.compile(loss='categorical_crossentropy', optimizer='adam')
net.fit(features, labels_onehot, epochs=10)
