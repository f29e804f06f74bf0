import numpy as np
from keras.models import Sequential
from keras.layers import Conv2D, Flatten, Dense
pictures = np.random.rand(40, 24, 24, 1)
kinds = np.random.randint(0, 3, 40)
classifier = Sequential()
classifier.add(Conv2D(8, (3, 3), activation='relu', input_shape=(24, 24, 1)))
classifier.add(Flatten())
classifier.add(Dense(3, activation='softmax'))
classifier.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
classifier.fit(pictures, kinds, epochs=2)
print(classifier.predict(pictures[:4]))
