from keras.models import Sequential
from keras.layers import Dense

net = Sequential()
net.add(Dense(12, input_dim=6, activation='relu'))
net.add(Dense(3, activation='sigmoid'))
net.compile(loss='categorical_crossentropy', optimizer='adam')
net.fit(features, labels_onehot, epochs=10)
