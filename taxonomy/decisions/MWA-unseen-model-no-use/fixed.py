import numpy as np
pictures = np.random.rand(40, 24, 24, 1)
kinds = np.random.randint(0, 3, 40)
from keras.models import Sequential
from keras.layers import Flatten, Dense
classifier = Sequential()
classifier.add(Flatten(input_shape=(24, 24, 1)))
classifier.add(Dense(3, activation='softmax'))
classifier.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
classifier.fit(pictures, kinds, epochs=2)
