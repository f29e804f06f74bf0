from keras.models import Sequential
from keras.layers import Dense, LSTM
import numpy as np

steps = np.random.rand(60, 5, 1)
ratings = np.random.randint(0, 2, 60)

joined = Sequential()
joined.add(LSTM(8, input_shape=(5, 1)))
joined.add(Dense(6, activation='relu'))
joined.add(Dense(1, activation='sigmoid'))
joined.compile(loss='binary_crossentropy', optimizer='adam')
joined.fit(steps, ratings, nb_epoch=5)
