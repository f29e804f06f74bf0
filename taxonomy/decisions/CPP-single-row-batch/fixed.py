import numpy as np
from keras.models import Sequential
from keras.layers import Dense
rows = np.random.rand(80, 10)
cls = np.eye(3)[np.random.randint(0, 3, 80)]
clf = Sequential()
clf.add(Dense(16, input_shape=(10,), activation='relu'))
clf.add(Dense(3, activation='softmax'))
clf.compile(loss='categorical_crossentropy', optimizer='adam')
clf.fit(rows, cls, epochs=3, batch_size=8)
guess = clf.predict(rows[5:6])
print(np.argmax(guess))
