import numpy as np
from keras.models import Sequential
from keras.layers import Dense
signals = np.random.rand(300, 5)
faulty = np.random.randint(0, 2, 300)
clf = Sequential()
clf.add(Dense(8, input_dim=5, activation='relu'))
clf.add(Dense(1, activation='sigmoid'))
clf.compile(loss='binary_crossentropy', optimizer='sgd')
clf.fit(signals, faulty, epochs=20, batch_size=10)
