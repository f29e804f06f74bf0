from keras.models import Sequential
from keras.layers import Dense, Merge
import numpy as np

words = np.random.rand(60, 3)
counts = np.random.rand(60, 2)
ratings = np.random.randint(0, 2, 60)

left = Sequential()
left.add(Dense(4, input_dim=3, activation='relu'))
right = Sequential()
right.add(Dense(4, input_dim=2, activation='relu'))
joined = Sequential()
joined.add(Merge([left, right], mode='concat'))
joined.add(Dense(1, activation='sigmoid'))
joined.compile(loss='binary_crossentropy', optimizer='adam')
joined.fit([words, counts], ratings, nb_epoch=5)
