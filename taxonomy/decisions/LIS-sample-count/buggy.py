from tensorflow.keras.layers import Dense
from tensorflow.keras.models import Sequential
clf = Sequential()
clf.add(Dense(40, activation='relu', input_shape=(feats.shape[0],)))
clf.add(Dense(3, activation='softmax'))
clf.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
clf.fit(feats, cls, epochs=5)
