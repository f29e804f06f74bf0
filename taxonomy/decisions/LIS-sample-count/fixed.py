import numpy as np
from tensorflow.keras.layers import Dense
from tensorflow.keras.models import Sequential
feats = np.random.rand(60, 9)
cls = np.random.randint(0, 3, 60)
clf = Sequential()
clf.add(Dense(40, activation='relu', input_shape=feats.shape[1:]))
clf.add(Dense(3, activation='softmax'))
clf.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
clf.fit(feats, cls, epochs=5)
